"""Cost normalizer: price catalogs, performance per dollar, cost per training run."""
