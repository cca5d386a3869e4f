from cryptobench.cli import main

raise SystemExit(main())
