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


def test_docs_example_without_matplotlib_says_what_to_install(tmp_path):
    # A fresh `pip install .` has numpy but not matplotlib: the fit still runs, and the plot says
    # how to get it instead of an ImportError traceback. A module named matplotlib that fails to
    # import stands in for the missing package.
    shadow = tmp_path / "shadow" / "matplotlib"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('No module named matplotlib')\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path / "shadow")] + [p for p in sys.path if p])
    done = subprocess.run([sys.executable, str(REPO / "docs" / "python_example.py"),
                           str(tmp_path / "kuka.png")],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert "model check:" in done.stdout, done.stderr
    assert done.returncode != 0
    assert 'pip install ".[plot]"' in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "kuka.png").exists()


def test_plot_extra_is_declared():
    import tomllib
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert "matplotlib" not in " ".join(project["dependencies"])
    assert project["optional-dependencies"]["plot"] == ["matplotlib"]
