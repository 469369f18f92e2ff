"""Schemathesis hooks for test/contract/schemathesis.test.ts.

`context_id` refers to server state: a context the organisation saved earlier. The document can
say what a valid id looks like, not which ids exist, so a generated one names nothing and is
refused with 422 E_UNKNOWN_CONTEXT, as the contract says. Like a real id in a path parameter, the
run uses the context the test saved (FRS_SAVED_CONTEXT_ID) wherever a generated body carries a
`context_id` that is valid by the document; a value the document forbids is left alone, so
negative cases stay negative.

Generated Idempotency-Keys repeat ("0", "00", ...) with different bodies, so most scoring cases
would end as a (documented, correct) 409 E_IDEMPOTENCY_MISMATCH and never reach the 200 path. A
key valid by the document is made unique per case, so the 200 answers get checked too; replays
and mismatches are covered by requests.http and the controls tests.
"""

import os
import re
import uuid

import schemathesis

SAVED = os.environ["FRS_SAVED_CONTEXT_ID"]
# The document's pattern for identifiers (shared/contract/storable-text.ts): a context_id that
# breaks it is a negative case and keeps its value.
STORABLE = re.compile("[^\u0000-\u001f\u007f-\u009f\ufdd0-\ufdef\ufffe\uffff\u202a-\u202e\u2066-\u2069]*")


@schemathesis.hook
def map_case(context, case):
    body = case.body
    if case.operation.path == "/v1/score" and isinstance(body, dict):
        given = body.get("context_id")
        if isinstance(given, str) and 1 <= len(given) <= 128 and STORABLE.fullmatch(given):
            body["context_id"] = SAVED
    headers = case.headers
    if case.operation.path == "/v1/score" and headers:
        key = headers.get("Idempotency-Key")
        if isinstance(key, str) and 1 <= len(key) <= 128:
            headers["Idempotency-Key"] = f"st-{uuid.uuid4().hex}"
    return case
