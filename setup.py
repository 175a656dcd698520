"""Packaging: the metadata is in setup.cfg; this file only ships the data.

The stages read the repository's top-level ``lexicons/`` and ``rules/`` folders. They are
mapped into the package as ``phenorules/lexicons`` and ``phenorules/rules``, so that a
wheel carries them as package data and ``resources.data_dir`` finds them wherever pip put
the package (a venv, ``--user``, ``--prefix``, ``--target``).
"""

from setuptools import find_packages, setup

DATA_PACKAGES = {"phenorules.lexicons": "lexicons", "phenorules.rules": "rules"}

setup(
    packages=find_packages(include=["phenorules", "phenorules.*"]) + list(DATA_PACKAGES),
    package_dir=DATA_PACKAGES,
    # The data folders, the HTML pages' templates (phenorules/formats/view.py) and the curation
    # page's assets (phenorules serve; no CDN).
    package_data={**{package: ["**/*"] for package in DATA_PACKAGES}, "phenorules": ["templates/*.j2"], "phenorules.serve": ["static/*"]},
)
