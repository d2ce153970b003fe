import sys

from harnesspro.cli import main

sys.exit(main())
