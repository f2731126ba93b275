package countercrdt

import (
	"database/sql/driver"
	"fmt"

	"github.com/jackc/pgtype"
)

// The interfaces of pgx v4's pgtype: a State scans from and is sent as a
// counter_crdt in text and binary format (pgxv4.Register makes binary the
// format of results), NULL as a State whose IsNull is true.

// Set assigns a State, *State, text form (string, []byte) or nil (NULL).
func (s *State) Set(src interface{}) error {
	switch v := src.(type) {
	case nil:
		*s = State{null: true}
	case State:
		*s = v
	case *State:
		if v == nil {
			*s = State{null: true}
		} else {
			*s = *v
		}
	case string:
		return s.UnmarshalText([]byte(v))
	case []byte:
		return s.UnmarshalText(v)
	default:
		return fmt.Errorf("counter_crdt: cannot set a State from %T", src)
	}
	return nil
}

// Get is the State, or nil for NULL.
func (s State) Get() interface{} {
	if s.null {
		return nil
	}
	return s
}

// AssignTo copies the State into *State, **State, *string (its text) or
// *int64 (its value).
func (s State) AssignTo(dst interface{}) error {
	switch d := dst.(type) {
	case *State:
		*d = s
	case **State:
		if s.null {
			*d = nil
		} else {
			c := s
			*d = &c
		}
	case *string:
		if s.null {
			return fmt.Errorf("counter_crdt: cannot assign NULL to *string")
		}
		*d = s.String()
	case *int64:
		v, ok, err := s.Total()
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("counter_crdt: cannot assign the value of %s to *int64", s)
		}
		*d = v
	default:
		return fmt.Errorf("counter_crdt: cannot assign a State to %T", dst)
	}
	return nil
}

// DecodeText reads the text form (nil: NULL).
func (s *State) DecodeText(_ *pgtype.ConnInfo, src []byte) error {
	if src == nil {
		*s = State{null: true}
		return nil
	}
	return s.UnmarshalText(src)
}

// DecodeBinary reads the binary form (nil: NULL).
func (s *State) DecodeBinary(_ *pgtype.ConnInfo, src []byte) error {
	if src == nil {
		*s = State{null: true}
		return nil
	}
	return s.UnmarshalBinary(src)
}

// EncodeText appends the text form (NULL: nil).
func (s State) EncodeText(_ *pgtype.ConnInfo, buf []byte) ([]byte, error) {
	if s.null {
		return nil, nil
	}
	return append(buf, s.String()...), nil
}

// EncodeBinary appends the binary form (NULL: nil).
func (s State) EncodeBinary(_ *pgtype.ConnInfo, buf []byte) ([]byte, error) {
	if s.null {
		return nil, nil
	}
	return s.appendBinary(buf), nil
}

// Scan is database/sql's Scanner: the text form, or NULL.
func (s *State) Scan(src interface{}) error {
	return s.Set(src)
}

// Value is database/sql's Valuer: the text form, or NULL.
func (s State) Value() (driver.Value, error) {
	if s.null {
		return nil, nil
	}
	return s.String(), nil
}
