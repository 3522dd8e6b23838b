"""The Python lines of the README run as shown (in a scratch copy of examples/)."""

import re
import shutil

import stmech  # noqa: F401  (the README imports it itself)


def readme_python_blocks(root):
    text = (root / "README.md").read_text()
    section = text.split("## Python", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


def test_readme_python_lines_run(root, tmp_path, monkeypatch):
    blocks = readme_python_blocks(root)
    assert blocks, "README.md has a '## Python' section with a python block"
    shutil.copytree(root / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    for code in blocks:
        exec(compile(code, "README.md", "exec"), {})
    assert (tmp_path / "out" / "demo-py" / "actuation.csv").exists()
