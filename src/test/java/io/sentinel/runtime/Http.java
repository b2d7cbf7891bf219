package io.sentinel.runtime;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** The gateway tests' plain HTTP GET (health, metrics): the body, whatever the status. */
final class Http {
  private Http() {}

  static String get(URI uri) {
    try {
      return HttpClient.newHttpClient()
          .send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString())
          .body();
    } catch (Exception e) {
      throw new IllegalStateException(uri + ": " + e.getMessage(), e);
    }
  }
}
