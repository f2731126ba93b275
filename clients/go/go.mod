module github.com/counter-crdt/counter_crdt/clients/go

go 1.19

require (
	github.com/jackc/pgtype v1.14.0
	github.com/jackc/pgx/v4 v4.18.1
	github.com/jackc/pgx/v5 v5.5.5
)
