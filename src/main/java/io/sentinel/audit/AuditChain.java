package io.sentinel.audit;

/** The head of the chain: each entry appended is sealed after the one before it. */
public final class AuditChain {
  private long seq;
  private String head;

  /** Continues a chain whose last record has {@code lastSeq} and {@code lastHash}. */
  public AuditChain(long lastSeq, String lastHash) {
    this.seq = lastSeq;
    this.head = lastHash;
  }

  public static AuditChain empty() {
    return new AuditChain(0, AuditRecord.GENESIS);
  }

  public AuditRecord append(AuditEntry entry) {
    AuditRecord r = AuditRecord.seal(seq + 1, entry, head);
    seq = r.seq();
    head = r.hash();
    return r;
  }

  public long seq() {
    return seq;
  }

  public String head() {
    return head;
  }
}
