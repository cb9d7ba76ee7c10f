"""Build step (setuptools ``cmdclass``): ship the checked-in schemas/*.json in the package.

The top-level schemas/ directory stays the one checked-in copy; a wheel or a non-editable
install gets the same files as ``engine/schemas/``, so ``flowctl schema --check`` and
``flowctl new`` modelines work there (``engine.schema_files`` finds either). Only the
standard library and setuptools are imported: this runs inside the build.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools.command.build_py import build_py

SCHEMAS = Path(__file__).resolve().parents[1] / "schemas"


class BuildWithSchemas(build_py):
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "engine" / "schemas"
        target.mkdir(parents=True, exist_ok=True)
        for schema in sorted(SCHEMAS.glob("*.schema.json")):
            shutil.copyfile(schema, target / schema.name)
