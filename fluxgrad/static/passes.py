"""Passes on programs: functions Program -> Program, each ending with `check()`."""
