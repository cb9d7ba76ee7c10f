"""Build step: ship the checked-in schemas/*.json inside the package as engine/schemas/.

The top-level schemas/ directory stays the one checked-in copy; a wheel or a non-editable
install gets the same files so `flowctl schema --check` and `flowctl new` modelines work there.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithSchemas(build_py):
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "engine" / "schemas"
        target.mkdir(parents=True, exist_ok=True)
        for schema in sorted(Path(__file__).parent.joinpath("schemas").glob("*.schema.json")):
            shutil.copyfile(schema, target / schema.name)


setup(cmdclass={"build_py": BuildWithSchemas})
