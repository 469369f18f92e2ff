#!/bin/sh
# Renders an ACL template to stdout: drops comment lines and replaces each ${VAR} from the
# environment. Fails if a referenced variable is unset or empty, or a password holds whitespace
# (an ACL line is split on blanks).
set -eu
template="$1"
out=""
while IFS= read -r line || [ -n "$line" ]; do
  case "$line" in '#'* | '') continue ;; esac
  while :; do
    case "$line" in
      *'${'*'}'*)
        name="${line#*\$\{}"; name="${name%%\}*}"
        eval "value=\${$name:-}"
        if [ -z "$value" ]; then echo "render-acl: $name is not set" >&2; exit 1; fi
        case "$value" in *[[:space:]]*) echo "render-acl: $name holds whitespace" >&2; exit 1 ;; esac
        line="${line%%\$\{$name\}*}${value}${line#*\$\{$name\}}"
        ;;
      *) break ;;
    esac
  done
  out="$out$line
"
done < "$template"
printf '%s' "$out"
