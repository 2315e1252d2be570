"""python -m snowid"""

from snowid.cli import main

raise SystemExit(main())
