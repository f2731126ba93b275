// Package pgxv5 is counter_crdt's codec for pgx v5.
package pgxv5

import (
	"context"
	"database/sql/driver"
	"fmt"

	countercrdt "github.com/counter-crdt/counter_crdt/clients/go"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// Register looks up the OID of type counter_crdt in conn's database and
// registers Codec for it. Call it once per connection
// (pgxpool.Config.AfterConnect).
func Register(ctx context.Context, conn *pgx.Conn) error {
	var oid uint32
	if err := conn.QueryRow(ctx, "SELECT 'counter_crdt'::regtype::oid").Scan(&oid); err != nil {
		return err
	}
	conn.TypeMap().RegisterType(&pgtype.Type{Name: "counter_crdt", OID: oid, Codec: Codec{}})
	return nil
}

// Codec reads counter_crdt into countercrdt.State and writes State, in
// text and binary format (binary preferred).
type Codec struct{}

func (Codec) FormatSupported(format int16) bool {
	return format == pgtype.TextFormatCode || format == pgtype.BinaryFormatCode
}

func (Codec) PreferredFormat() int16 { return pgtype.BinaryFormatCode }

func (Codec) PlanEncode(_ *pgtype.Map, _ uint32, format int16, value any) pgtype.EncodePlan {
	switch value.(type) {
	case countercrdt.State, *countercrdt.State:
		return encodePlan{binary: format == pgtype.BinaryFormatCode}
	}
	return nil
}

type encodePlan struct{ binary bool }

func (p encodePlan) Encode(value any, buf []byte) ([]byte, error) {
	var s countercrdt.State
	switch v := value.(type) {
	case countercrdt.State:
		s = v
	case *countercrdt.State:
		if v == nil {
			return nil, nil
		}
		s = *v
	default:
		return nil, fmt.Errorf("counter_crdt: cannot encode %T", value)
	}
	if s.IsNull() {
		return nil, nil
	}
	if p.binary {
		b, _ := s.MarshalBinary()
		return append(buf, b...), nil
	}
	return append(buf, s.String()...), nil
}

func (Codec) PlanScan(_ *pgtype.Map, _ uint32, format int16, target any) pgtype.ScanPlan {
	if _, ok := target.(*countercrdt.State); ok {
		return scanPlan{format: format}
	}
	return nil
}

type scanPlan struct{ format int16 }

func (p scanPlan) Scan(src []byte, target any) error {
	s := target.(*countercrdt.State)
	if src == nil {
		return s.Set(nil)
	}
	if p.format == pgtype.BinaryFormatCode {
		return s.UnmarshalBinary(src)
	}
	return s.UnmarshalText(src)
}

func (c Codec) DecodeDatabaseSQLValue(m *pgtype.Map, oid uint32, format int16, src []byte) (driver.Value, error) {
	if src == nil {
		return nil, nil
	}
	var s countercrdt.State
	if err := (scanPlan{format}).Scan(src, &s); err != nil {
		return nil, err
	}
	return s.String(), nil
}

func (c Codec) DecodeValue(m *pgtype.Map, oid uint32, format int16, src []byte) (any, error) {
	if src == nil {
		return nil, nil
	}
	var s countercrdt.State
	if err := (scanPlan{format}).Scan(src, &s); err != nil {
		return nil, err
	}
	return s, nil
}
