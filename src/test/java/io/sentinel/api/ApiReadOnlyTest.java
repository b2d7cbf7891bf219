package io.sentinel.api;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.sentinel.runtime.BrokerResource;
import org.junit.jupiter.api.Test;

/** A gateway with no API token: it reads over HTTP and takes no change, whatever is sent. */
@QuarkusTest
@WithTestResource(
    value = BrokerResource.class,
    scope = TestResourceScope.RESTRICTED_TO_CLASS,
    initArgs = {
      @ResourceArg(name = "site-dir", value = "."),
      @ResourceArg(name = "site-prefix", value = "api-ro")
    })
class ApiReadOnlyTest {
  @Test
  void withoutAConfiguredToken_everyMutationIsRefused_andReadsStillAnswer() {
    given()
        .header("Authorization", "Bearer anything")
        .contentType("application/json")
        .body("{\"value\": true, \"expires_in\": \"10m\"}")
        .put("/api/v1/points/boiler.ch1.pump/override")
        .then()
        .statusCode(403)
        .body("field", equalTo("Authorization"))
        .body("error", containsString("sentinel.api.token"));
    // Issue 17: without a token 401 (was 403 here), with one 403.
    given().delete("/api/v1/points/boiler.ch1.pump/override").then().statusCode(401);
    given().post("/api/v1/rules/pump-run-on:resume").then().statusCode(401);
    given()
        .get("/api/v1/points/boiler.ch1.pump")
        .then()
        .statusCode(200)
        .body("override", equalTo(null));
    given()
        .get("/api/v1/rules/pump-run-on")
        .then()
        .statusCode(200)
        .body("state", equalTo("warmup"));
  }
}
