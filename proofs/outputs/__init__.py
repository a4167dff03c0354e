"""Everything written to build/: the report, the derivations document and PDF, figures, notebooks, the main job."""
