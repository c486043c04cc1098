"""attnviz: see attention."""

import os

__version__ = "0.1.0"

# OpenMP's threads wait for work by spinning unless told otherwise; on a machine whose cores are busy with other work
# (more runnable threads than cores) a spinning thread takes the time slice its partner needs, and every small
# parallel operation waits for a thread that is not running: a Gemma-3-270M-shaped decoding step on 2 threads took
# 1.4–1.6 s at load 12 with spinning, 0.37 s with passive waiting (bench/RESULTS.md, issue 57 §4). Set before torch
# is imported (OpenMP reads it once, as it starts); a value the user set is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
