# The templates live at the top of the checkout (templates/) but ship inside the
# wheel as the package reviewtool.templates; pyproject.toml cannot express both.
from setuptools import find_packages, setup

setup(
    packages=find_packages(include=["reviewtool", "reviewtool.*"]) + ["reviewtool.templates"],
    package_dir={"reviewtool.templates": "templates"},
)
