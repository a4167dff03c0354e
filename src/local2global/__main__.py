from local2global.cli import main

raise SystemExit(main())
