package io.octomy.batch.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Objects;

/**
 * Where a node's agent serves the output of the jobs it runs as processes (HTTPS), as a kubelet
 * publishes its endpoint in a Node's status. The visibility API reads a job's output there for
 * {@code kubectl octomy logs}, trusting exactly this certificate.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class LogEndpoint {

  /** The path of a run's output: {@code GET PATH?namespace=&name=&uid=&run=&replica=}. */
  public static final String PATH = "/v1/joboutput";

  /**
   * The audience of the tokens an agent accepts, one per node: a token minted for one node's agent
   * is good for nothing else, neither another agent nor the API server.
   */
  public static String audience(String node) {
    return "batch.octomy.io/node-output/" + node;
  }

  /** The host name or IP address the agent is reached at. */
  private String host;

  /** The agent's HTTPS port. */
  private Integer port;

  /** The agent's self-signed serving certificate (PEM), made when it started. */
  private String certificate;

  public LogEndpoint() {}

  public LogEndpoint(String host, Integer port, String certificate) {
    this.host = host;
    this.port = port;
    this.certificate = certificate;
  }

  public String getHost() {
    return host;
  }

  public void setHost(String host) {
    this.host = host;
  }

  public Integer getPort() {
    return port;
  }

  public void setPort(Integer port) {
    this.port = port;
  }

  public String getCertificate() {
    return certificate;
  }

  public void setCertificate(String certificate) {
    this.certificate = certificate;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LogEndpoint e
        && Objects.equals(host, e.host)
        && Objects.equals(port, e.port)
        && Objects.equals(certificate, e.certificate);
  }

  @Override
  public int hashCode() {
    return Objects.hash(host, port, certificate);
  }
}
