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


def python_blocks(path):
    """The ```python blocks of a Markdown file, in order."""
    blocks, current = [], None
    for line in path.read_text().splitlines():
        if current is None and line.strip() == "```python":
            current = []
        elif current is not None and line.strip() == "```":
            blocks.append("\n".join(current))
            current = None
        elif current is not None:
            current.append(line)
    return blocks


def test_markdown_snippets_run(monkeypatch, capsys):
    # As written, from the repository's root; one namespace per file, blocks in order.
    monkeypatch.chdir(REPO)
    for doc in (REPO / "README.md", REPO / "docs" / "python.md"):
        blocks = python_blocks(doc)
        assert blocks, doc
        namespace = {}
        for block in blocks:
            exec(compile(block, str(doc), "exec"), namespace)
