"""Infrastructure: process pools (local or Dask), the verified on-disk cache, atomic file writes."""
