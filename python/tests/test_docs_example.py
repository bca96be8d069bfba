"""docs/python_example.py runs as written (matplotlib's Agg backend) and writes its plot."""
import os
import subprocess
import sys

from conftest import REPO


def test_docs_example_runs(tmp_path):
    out = tmp_path / "kuka.png"
    env = dict(os.environ, MPLBACKEND="Agg")
    done = subprocess.run([sys.executable, str(REPO / "docs" / "python_example.py"), str(out)],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "model check:" in done.stdout and out.stat().st_size > 10000
