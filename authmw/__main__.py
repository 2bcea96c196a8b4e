import sys

from authmw.cli import main

sys.exit(main())
