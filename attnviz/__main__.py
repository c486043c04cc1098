import sys

from attnviz.app import main

sys.exit(main())
