"""Results: time-to-train per run, benchmark scores, RCP convergence and seed checks."""
