"""The packages of the wheel. Why a setup.py beside pyproject.toml: the app's script, its pages and its Streamlit
settings live at the checkout's root (so `streamlit run app.py` works from a clone), and the wheel must carry them
inside the package (`rag_debugger/_app`, where `rag-debugger` finds them). That is a package-dir mapping plus the
found packages, which pyproject.toml's static tables cannot combine."""
from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

APP = {"rag_debugger._app": ".", "rag_debugger._app.pages": "pages"}


class BuildPy(build_py):
    """Of the checkout's root files, only the app's script goes into `rag_debugger/_app` (not this file)."""

    def find_package_modules(self, package, package_dir):
        modules = super().find_package_modules(package, package_dir)
        return [m for m in modules if package != "rag_debugger._app" or m[1] == "app"]


setup(
    packages=[*find_packages(include=["rag", "rag.*", "rag_debugger", "rag_debugger.*"]), *APP],
    package_dir=APP,
    py_modules=[],
    cmdclass={"build_py": BuildPy},
)
