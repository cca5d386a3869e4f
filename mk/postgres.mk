# A team's shared store is PostgreSQL; its tests start a real server from Debian's package in a
# temporary directory (Unix socket only) and stop it.
APT_postgres := postgresql
APT_PACKAGES += $(APT_postgres)
