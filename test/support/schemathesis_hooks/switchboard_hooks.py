"""Schemathesis hooks of the suite's schema fuzzing (test/support/schemathesis.ts).

`state_dependent_refusals_only`: where the run tolerates a status for `positive_data_acceptance`
(per-operation `expected-statuses` in schemathesis.toml), a schema-valid request refused with that
status must be refused for one of the reasons listed in the test (STATE_REFUSALS, passed here as
JSON in SWITCHBOARD_STATE_REFUSALS): the tolerance covers those refusals, not the whole status.
"""

import inspect
import json
import os
import re

import schemathesis

try:
    from hypothesis.strategies._internal import regex as _hypothesis_regex
except ImportError:  # another hypothesis layout: strategies are built as schemathesis builds them
    _hypothesis_regex = None

_REFUSALS = json.loads(os.environ.get("SWITCHBOARD_STATE_REFUSALS", "[]"))


def _memoize_regex_strategies():
    """Builds hypothesis' strategy for a pattern once per (pattern, flags, alphabet) instead of at every use.

    Schemathesis asks for a pattern's strategy each time it generates a value for a field, with a new `alphabet`
    object each time, so hypothesis' own `from_regex` cache never hits. Building the strategy of the phone number
    pattern (one alternative per country calling code) took about 0.13 s of CPU, 68 times in one fuzzing run of the
    live key: about half of that run's CPU (docs/performance.md, "The test suite"). A strategy is an immutable
    description of what to draw, so reusing it draws exactly what a new one would from the same seed. Only alphabets
    whose repr states their arguments are keyed (hypothesis' `characters(...)`); anything else is built as before, and
    so is everything if a hypothesis upgrade changes the function this wraps.
    """
    build = getattr(_hypothesis_regex, "base_regex_strategy", None) if _hypothesis_regex else None
    if build is None or list(inspect.signature(build).parameters) != ["regex", "parsed", "alphabet"]:
        return
    built = {}

    def memoized(regex, *, parsed=None, alphabet):
        described = repr(alphabet)
        if " at 0x" in described:
            return build(regex, parsed=parsed, alphabet=alphabet)
        key = (regex.pattern, regex.flags, described)
        if key not in built:
            built[key] = build(regex, parsed=parsed, alphabet=alphabet)
        return built[key]

    _hypothesis_regex.base_regex_strategy = memoized


_memoize_regex_strategies()


def _keep_coverage_draws():
    """Keeps every value the coverage phase drew for the whole run, instead of the last 128.

    The coverage phase draws one value per strategy (seeded: the same strategy draws the same value every time) and keeps
    it in its session (`GenerationSession.draw_outcomes`, beside the strategies it built per pattern and length in
    `pattern_strategies`), least-recently-used caches of 128 entries. The test key's run asks for about 130 distinct
    strategies, so a field drawn early was drawn again after its entry had been evicted: 278 draws, 41 CPU-seconds, before;
    238 draws, 35 CPU-seconds, after (the remaining repeats are strategies that differ as objects, e.g. by a bound the
    pattern already pins). A larger bound answers with the value the redraw would have produced, so every request is the
    one it was; only the bound changes, and nothing if a schemathesis upgrade renames these caches.
    """
    try:
        from schemathesis.generation.coverage import DEFAULT_GENERATION_SESSION, GenerationSession
    except ImportError:
        return

    def enlarge(session):
        for name in ("draw_outcomes", "pattern_strategies"):
            cache = getattr(session, name, None)
            if cache is not None and isinstance(getattr(cache, "_maxsize", None), int):
                cache._maxsize = max(cache._maxsize, 1 << 16)

    build = GenerationSession.__init__

    def init(self, *args, **kwargs):
        build(self, *args, **kwargs)
        enlarge(self)

    GenerationSession.__init__ = init
    # The process-wide session, made when schemathesis was imported (before these hooks).
    enlarge(DEFAULT_GENERATION_SESSION)


_keep_coverage_draws()


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
