package io.sentinel.site;

import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;

/**
 * What a site says about itself in {@code site.yaml}: its name (the MQTT topic root; the folder's
 * name when absent), its time zone (time_of_day), its zones (the DSL's {@code zone: court.*}
 * instantiates a rule once per matching zone) and whether it accepts pushed revisions that no
 * trusted key signed ({@code allow_unsigned_revisions}, false unless it says so:
 * docs/revisions.md).
 */
public record SiteSettings(
    java.util.Optional<String> name,
    ZoneId timeZone,
    List<String> zones,
    boolean allowUnsignedRevisions) {
  public static final SiteSettings DEFAULT =
      new SiteSettings(java.util.Optional.empty(), ZoneOffset.UTC, List.of(), false);

  public SiteSettings {
    zones = List.copyOf(zones);
  }
}
