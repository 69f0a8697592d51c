package io.octomy.batch.controller;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;

/**
 * Test support for the fabric8 mock API server, shared by the controller, agent and evidence tests.
 */
public final class MockApi {
  private MockApi() {}

  /**
   * A started mock API server in CRUD mode: it stores what it is sent and serves it back, watches
   * included.
   */
  public static KubernetesMockServer crudServer() {
    var server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            new HashMap<>(),
            new RulesReviewingDispatcher(),
            false);
    server.init();
    return server;
  }

  /**
   * The CRUD dispatcher, plus an answer to SelfSubjectRulesReview (which the stock one refuses for
   * lacking metadata): JOSDK asks it whether it may use its Lease before electing a leader. The
   * answer grants what the chart's Role grants the controller on leases.
   */
  static final class RulesReviewingDispatcher extends KubernetesCrudDispatcher {
    @Override
    public MockResponse dispatch(RecordedRequest request) {
      if ("POST".equals(request.getMethod())
          && request.getPath().endsWith("/selfsubjectrulesreviews")) {
        return new MockResponse()
            .setResponseCode(201)
            .setBody(
                """
            {"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","metadata":{},
             "status":{"incomplete":false,"resourceRules":[{"apiGroups":["coordination.k8s.io"],
             "resources":["leases"],"verbs":["create","get","update"]}],"nonResourceRules":[]}}""");
      }
      return super.dispatch(request);
    }
  }

  /** Installs the committed CRDs, as a cluster admin would before starting the controller. */
  public static void installCrds(KubernetesClient client) {
    for (String crd : new String[] {"batchjobs", "batchnodes", "batchjobprofiles", "batchqueues"}) {
      try (InputStream in = Files.newInputStream(Path.of("crds", crd + ".batch.octomy.io.yaml"))) {
        client.apiextensions().v1().customResourceDefinitions().load(in).create();
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
