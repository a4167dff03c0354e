"""The kernel pass: exact steps re-proved by Coq's kernel from certificates generated out of their SymPy
obligations (`certificate`), printed by one SymPy -> Coq printer (`coq`), compiled by ``coqc`` (`compile`),
and the records upgraded where a certificate compiled (`kernel_pass`)."""
from local2global.proofs.kernel.compile import coq_version as coq_version, coqc as coqc
from local2global.proofs.kernel.kernel_pass import FOLDER as FOLDER, KernelSummary as KernelSummary
from local2global.proofs.kernel.kernel_pass import kernel_pass as kernel_pass

__all__ = ["FOLDER", "KernelSummary", "coq_version", "coqc", "kernel_pass", "MISSING", "apply"]

#: the one line a command prints when Coq is not installed
MISSING = ("coqc is not installed: no kernel pass, the statuses are those of the SymPy checks (Debian: apt-get "
           "install coq)")


def apply(records, out, workers=None, progress=None):
    """`kernel_pass` then the status propagation again (a kernel step changes what a result rests on): (records,
    summary), the summary also written to ``out/coq/summary.json`` when `out` is given."""
    import json
    from pathlib import Path

    from local2global.proofs._registry import propagate
    new, summary = kernel_pass(records, out, workers, progress)
    new = propagate(new)
    if out is not None:
        path = Path(out) / FOLDER / "summary.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        d = summary.as_dict()
        d.pop("cached")            # cold and warm runs write the same file
        path.write_text(json.dumps(d, indent=2, sort_keys=True) + "\n")
    return new, summary
