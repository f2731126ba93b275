"""Runs unittest modules and prints TAP: "ok N - module.Class.test" or
"not ok N - ..." per test (its traceback as "# " lines), a skipped test as
"ok N - ... # SKIP reason", the plan "1..N" last; exit status 0 only when
every test passed.

    python unittest_tap.py DIR MODULE...     (the modules imported from DIR)
"""
import sys
import unittest


class TapResult(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.n = 0

    def _line(self, test, ok, note=None, detail=None):
        self.n += 1
        line = "%s %d - %s" % ("ok" if ok else "not ok", self.n, test.id())
        if note:
            line += " # " + note
        print(line, flush=True)
        for text in (detail or "").rstrip("\n").split("\n") if detail else ():
            print("# " + text, flush=True)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._line(test, True)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._line(test, False, detail=self.failures[-1][1])

    def addError(self, test, err):
        super().addError(test, err)
        self._line(test, False, detail=self.errors[-1][1])

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._line(test, True, note="SKIP " + reason)

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._line(test, True, note="TODO expected failure")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._line(test, False, note="unexpected success")

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self._line(subtest, False, detail=(self.failures or self.errors)[-1][1])


def main(argv):
    sys.path.insert(0, argv[1])
    suite = unittest.defaultTestLoader.loadTestsFromNames(argv[2:])
    result = TapResult()
    suite.run(result)
    print("1..%d" % result.n, flush=True)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
