"""Submission trees: the package checker for one org and the audit of a whole round."""
