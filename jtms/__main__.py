from jtms.cli import main

raise SystemExit(main())
