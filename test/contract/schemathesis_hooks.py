"""Schemathesis hooks for test/contract/schemathesis.test.ts.

`context_id` refers to server state: a context the organisation saved earlier. The document can
say what a valid id looks like, not which ids exist, so a generated one names nothing and is
refused with 422 E_UNKNOWN_CONTEXT, as the contract says. Like a real id in a path parameter, the
run uses the context the test saved (FRS_SAVED_CONTEXT_ID) wherever a generated body carries a
`context_id` that is valid by the document; a value the document forbids is left alone, so
negative cases stay negative.

Generated Idempotency-Keys repeat ("0", "00", ...) with different bodies, so most scoring cases
would end as a (documented, correct) 409 E_IDEMPOTENCY_MISMATCH and never reach the 200 path. A
key valid by the document (1 to 128 visible ASCII characters) is made unique per case, so the
200 answers get checked too; replays and mismatches are covered by requests.http and the
controls tests.
"""

import os
import re
import uuid
from datetime import datetime, timedelta, timezone

import schemathesis

SAVED = os.environ["FRS_SAVED_CONTEXT_ID"]
SAVED_SCORE = os.environ["FRS_SAVED_SCORE_ID"]
SCORE_ID = re.compile("sc_[0-9a-f]{32}")
# The document's pattern for occurred_at (zod's RFC 3339 date-time with an offset): a time that
# breaks it is a negative case and keeps its value.
DATE_TIME = re.compile(
    r"(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29"
    r"|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)"
    r"|(?:02)-(?:0[1-9]|1\d|2[0-8])))"
    r"T(?:(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|([+-](?:[01]\d|2[0-3]):[0-5]\d)))"
)
# The document's pattern for Idempotency-Key: a key that breaks it is a negative case and is kept.
VISIBLE_ASCII = re.compile(r"[\x21-\x7e]+")
# The document's pattern for identifiers (shared/contract/storable-text.ts): a context_id that
# breaks it is a negative case and keeps its value.
STORABLE = re.compile("[^\u0000-\u001f\u007f-\u009f\ufdd0-\ufdef\ufffe\uffff\u202a-\u202e\u2066-\u2069]*")


IDEMPOTENT_PATHS = ("/v1/score", "/v1/outcomes", "/v1/lists", "/v1/lists/entries", "/v1/lists/entries/remove")
# A list entry's value must be one of its kind (a number, a prefix, an address, a range without
# host bits, an AS number), a rule the document states in words: a value valid by the document
# (1 to 64 characters) becomes one of its kind, distinct per entry, and a reason of spaces alone
# (valid by the document, refused as empty once trimmed) gets words. A kind, value or reason the
# document forbids keeps its value. `expires_at` must lie in the future: a string the document
# allows becomes tomorrow.
LIST_VALUES = {
    "phone": lambda i: f"+4479111{i:05d}",
    "phone_prefix": lambda i: f"+44{i + 1}",
    "ip": lambda i: f"10.0.{i >> 8}.{i & 255}",
    "cidr": lambda i: f"10.{i >> 8}.{i & 255}.0/24",
    "asn": lambda i: f"AS{64500 + i}",
}
# Any text is valid by the document for a CSV body: the run replaces it with a valid list.
LIST_CSV = "kind,value,effect,reason,expires_at\r\nip,192.0.2.1,deny,schemathesis,\r\n"


def valid_list_entries(entries):
    if not isinstance(entries, list):
        return
    tomorrow = (datetime.now(timezone.utc) + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            continue
        value, kind = entry.get("value"), entry.get("kind")
        if isinstance(kind, str) and kind in LIST_VALUES and isinstance(value, str) and 1 <= len(value) <= 64:
            entry["value"] = LIST_VALUES[kind](i)
        reason = entry.get("reason")
        if isinstance(reason, str) and reason and not reason.strip():
            entry["reason"] = "schemathesis"
        when = entry.get("expires_at")
        if isinstance(when, str) and len(when) <= 40:
            entry["expires_at"] = tomorrow


@schemathesis.hook
def map_case(context, case):
    body = case.body
    if case.operation.path == "/v1/score" and isinstance(body, dict):
        given = body.get("context_id")
        if isinstance(given, str) and 1 <= len(given) <= 128 and STORABLE.fullmatch(given):
            body["context_id"] = SAVED
    # Outcomes: a score_id names a score of the caller (server state, like context_id), and
    # occurred_at must lie within the last 13 months and not in the future (a rule of time the
    # document can state only in words). A valid id points at the run's saved score; a time valid
    # by the document becomes yesterday; one the document forbids keeps its value.
    if case.operation.path == "/v1/outcomes" and isinstance(body, dict):
        given = body.get("score_id")
        if isinstance(given, str) and SCORE_ID.fullmatch(given):
            body["score_id"] = SAVED_SCORE
        when = body.get("occurred_at")
        if isinstance(when, str) and DATE_TIME.fullmatch(when):
            yesterday = datetime.now(timezone.utc) - timedelta(days=1)
            body["occurred_at"] = yesterday.strftime("%Y-%m-%dT%H:%M:%SZ")
    if case.operation.path in ("/v1/lists/entries", "/v1/lists/entries/remove") and isinstance(body, dict):
        valid_list_entries(body.get("entries"))
    if case.operation.path == "/v1/lists" and case.operation.method.upper() == "PUT":
        case.body = LIST_CSV
    headers = case.headers
    if case.operation.path in IDEMPOTENT_PATHS and headers:
        key = headers.get("Idempotency-Key")
        if isinstance(key, str) and 1 <= len(key) <= 128 and VISIBLE_ASCII.fullmatch(key):
            headers["Idempotency-Key"] = f"st-{uuid.uuid4().hex}"
    return case
