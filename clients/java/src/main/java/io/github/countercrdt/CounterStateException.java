package io.github.countercrdt;

/**
 * A text or binary form that the server would refuse (its SQLSTATE 22P02
 * for text, 22P03 for binary); {@link #getDetail} is the server's DETAIL.
 */
public final class CounterStateException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String detail;

    CounterStateException(String detail) {
        super("counter_crdt: " + detail);
        this.detail = detail;
    }

    /** The server's DETAIL for the same value, word for word. */
    public String getDetail() {
        return detail;
    }
}
