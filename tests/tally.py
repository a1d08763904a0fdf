"""The check lines and the closing count the test scripts print.

    import tally
    tally.check("listing equals the local one", got == want, f"{got!r} != {want!r}")
    return tally.summary()        # prints `N passed, M failed`; 0 when all passed, else 1

A passing check prints `PASS name`, a failing one `FAIL name: detail`. tally.passes = False
prints failures only; tally.pass_details = True adds the detail to passing lines too (for
figures worth reading, such as bytes touched).
"""
passes = True
pass_details = False
passed = 0
failed = 0


def check(name, ok, detail=""):
    """Counts one check and prints its line; returns ok."""
    global passed, failed
    if ok:
        passed += 1
        if passes:
            print(f"PASS {name}" + (f": {detail}" if detail and pass_details else ""), flush=True)
    else:
        failed += 1
        print(f"FAIL {name}" + (f": {detail}" if detail else ""), flush=True)
    return ok


def summary():
    """Prints `N passed, M failed`; returns the exit status (1 when any check failed)."""
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0
