"""Launch attnviz from a checkout: ``python main.py [options]``."""

import sys

from attnviz.app import main

if __name__ == "__main__":
    sys.exit(main())
