#!/bin/sh
# Temporal's schema set-up, run once per `docker compose up` by the temporal-schema service (the
# maintained admin-tools image) before the server starts: creates Temporal's two databases on the
# shared PostgreSQL server if they are missing, then brings both schemas to the image's version.
# Safe to run again: an existing database is kept and an up-to-date schema is left as it is.
set -eu
tool() { temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$DB_PORT" -u "$POSTGRES_USER" --pw "$POSTGRES_PWD" "$@"; }
for db in temporal temporal_visibility; do
  tool --db "$db" create-database 2>/dev/null || echo "database $db exists"
done
tool --db temporal setup-schema -v 0.0
tool --db temporal update-schema -d /etc/temporal/schema/postgresql/v12/temporal/versioned
tool --db temporal_visibility setup-schema -v 0.0
tool --db temporal_visibility update-schema -d /etc/temporal/schema/postgresql/v12/visibility/versioned
echo "Temporal schema ready"
