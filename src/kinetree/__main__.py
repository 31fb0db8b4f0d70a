import sys

from kinetree.cli import main

sys.exit(main())
