"""A frozen copy of the attention controller before the facade rewrite (issue 13).

Test-only: the equivalence tests drive it and the live controller with the same workload and
compare their decisions. Never edit it to follow the live code; that is what it guards against.
"""
