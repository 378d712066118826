"""Which build of the tool a run needs. A run that sets a test hook's environment
variable (RDELTA_TEST_*, RDELTA_INPLACE_BATCH_BYTES, RDELTA_GATHER: small journal
batches, a SIGKILL or SIGSTOP after a batch or a history step) steers the hooks
that only rdelta-test links (src/core/test_hooks.hpp, tests/hooks); the installed
rdelta reads none of them."""

HOOK_VARIABLES = ("RDELTA_TEST_", "RDELTA_INPLACE_BATCH_BYTES", "RDELTA_GATHER")


def steers_hooks(env):
    """Whether the variables `env` sets include a test hook's."""
    return any(k.startswith(HOOK_VARIABLES) for k in env or {})


def tool_for(env, rdelta, rdelta_test):
    """rdelta-test for a run with the variables `env` when they steer the hooks, else rdelta."""
    return rdelta_test if steers_hooks(env) else rdelta
