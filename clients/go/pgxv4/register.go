// Package pgxv4 registers counter_crdt on a pgx v4 connection.
package pgxv4

import (
	"context"

	countercrdt "github.com/counter-crdt/counter_crdt/clients/go"
	"github.com/jackc/pgtype"
	"github.com/jackc/pgx/v4"
)

// Register looks up the OID of type counter_crdt in conn's database and
// registers countercrdt.State for it: results of the type come in binary
// format and scan into State, State parameters are sent in binary. Call it
// once per connection (pgxpool.Config.AfterConnect).
func Register(ctx context.Context, conn *pgx.Conn) error {
	var oid uint32
	if err := conn.QueryRow(ctx, "SELECT 'counter_crdt'::regtype::oid").Scan(&oid); err != nil {
		return err
	}
	conn.ConnInfo().RegisterDataType(pgtype.DataType{Value: &countercrdt.State{}, Name: "counter_crdt", OID: oid})
	return nil
}
