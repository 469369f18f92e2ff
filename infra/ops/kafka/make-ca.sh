#!/bin/sh
# The TLS material of the compose deployment's Kafka listener (SASL_SSL): a CA of the deployment's
# own and the broker's key store, made with openssl and the JDK's keytool. Run it once before
# `docker compose up`, and again to renew the broker's certificate (the CA is kept, so clients
# keep trusting it):
#   sh infra/ops/kafka/make-ca.sh [out-dir]        out-dir: infra/ops/kafka/tls (git-ignored)
# It writes
#   ca.key                    the CA's private key (600). It signs broker certificates and is
#                             mounted nowhere; keep it off the hosts that run the services.
#   ca.crt                    the CA's certificate (644): every client verifies the broker with it
#                             (KAFKA_SSL_CA_FILE), so does the broker's own inter-broker client
#   broker.keystore.p12       the broker's private key and certificate chain, PKCS12 (600)
#   broker.keystore.password  the key store's password (600), which the broker image reads
# The broker's certificate names the hosts of KAFKA_TLS_SAN (default DNS:kafka,DNS:localhost,
# IP:127.0.0.1: the compose service name, its health check, and the test broker on loopback), and
# is valid KAFKA_TLS_DAYS days (825). The broker container runs as the image's `appuser` (uid
# 1000): run as root, the script gives it the broker's two files (KAFKA_TLS_UID, 1000); run as
# another user, it says what to chown.
set -eu
out=${1:-$(dirname "$0")/tls}
san=${KAFKA_TLS_SAN:-DNS:kafka,DNS:localhost,IP:127.0.0.1}
days=${KAFKA_TLS_DAYS:-825}
uid=${KAFKA_TLS_UID:-1000}
umask 077
mkdir -p "$out"
cd "$out"

if [ ! -s ca.key ] || [ ! -s ca.crt ]; then
  openssl req -x509 -newkey rsa:3072 -sha256 -nodes -days 3650 -subj "/CN=frs-kafka-ca" \
    -addext 'basicConstraints=critical,CA:TRUE' -addext 'keyUsage=critical,keyCertSign,cRLSign' \
    -keyout ca.key -out ca.crt 2>/dev/null
  echo "make-ca: new CA in $out/ca.crt"
fi
chmod 600 ca.key
chmod 644 ca.crt

# A fresh key store each time; its password goes to keytool from a file, never on a command line.
rm -f broker.keystore.p12 broker.keystore.password broker.csr broker.crt broker.ext
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >broker.keystore.password
pw=broker.keystore.password
keytool -genkeypair -noprompt -alias broker -keyalg RSA -keysize 3072 -validity "$days" \
  -dname "CN=kafka" -ext "SAN=$san" -storetype PKCS12 -keystore broker.keystore.p12 \
  -storepass:file "$pw" -keypass:file "$pw" >/dev/null 2>&1
keytool -certreq -alias broker -ext "SAN=$san" -keystore broker.keystore.p12 -storepass:file "$pw" \
  -file broker.csr >/dev/null 2>&1
printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth\n' \
  "$san" >broker.ext
openssl x509 -req -sha256 -in broker.csr -CA ca.crt -CAkey ca.key -set_serial "0x$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')" \
  -days "$days" -extfile broker.ext -out broker.crt 2>/dev/null
# The CA first, then the signed certificate as the reply to the request: the key entry's chain.
keytool -importcert -noprompt -alias frs-kafka-ca -file ca.crt -keystore broker.keystore.p12 \
  -storepass:file "$pw" >/dev/null 2>&1
keytool -importcert -noprompt -alias broker -file broker.crt -keystore broker.keystore.p12 \
  -storepass:file "$pw" >/dev/null 2>&1
rm -f broker.csr broker.crt broker.ext
chmod 600 broker.keystore.p12 broker.keystore.password

if [ "$(id -u)" -eq 0 ]; then
  chown "$uid" broker.keystore.p12 broker.keystore.password
elif [ "$(id -u)" -ne "$uid" ]; then
  echo "make-ca: the broker container runs as uid $uid: sudo chown $uid $out/broker.keystore.*" >&2
fi
echo "make-ca: broker key store for $san in $out (valid $days days)"
