"""Schemathesis hooks of the suite's schema fuzzing (test/support/schemathesis.ts).

`state_dependent_refusals_only`: where the run tolerates a status for `positive_data_acceptance`
(per-operation `expected-statuses` in schemathesis.toml), a schema-valid request refused with that
status must be refused for one of the reasons listed in the test (STATE_REFUSALS, passed here as
JSON in SWITCHBOARD_STATE_REFUSALS): the tolerance covers those refusals, not the whole status.
"""

import json
import os
import re

import schemathesis

_REFUSALS = json.loads(os.environ.get("SWITCHBOARD_STATE_REFUSALS", "[]"))


def _matches(refusal, status, code, detail):
    if refusal["status"] != status or refusal["code"] != code:
        return False
    if "field" in refusal and re.fullmatch(refusal["field"], detail.get("field", "")) is None:
        return False
    return "message" not in refusal or re.search(refusal["message"], detail.get("message", "")) is not None


@schemathesis.check
def state_dependent_refusals_only(ctx, response, case):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return None
    listed = [r for r in _REFUSALS if case.operation.label in r["operations"]]
    if not any(r["status"] == response.status_code for r in listed):
        return None
    try:
        error = response.json()["error"]
    except Exception:
        raise AssertionError(f"{response.status_code} without the error envelope")
    details = error.get("details") or [{}]
    for detail in details:
        if not any(_matches(r, response.status_code, error.get("code"), detail) for r in listed):
            raise AssertionError(
                f"Schema-valid request refused for a reason the test does not list as state-dependent: "
                f"{response.status_code} {error.get('code')} {detail}"
            )
    return None
