# The octomy-batch image: controller, agent and standalone are subcommands of one jar.
# Build the jar first: mvn -B -q package -DskipTests
FROM eclipse-temurin:17-jre

# A fixed numeric user matching the chart's runAsUser; its home is /tmp, the one writable place
# when the root filesystem is mounted read-only.
RUN groupadd --system --gid 10001 octomy \
 && useradd --system --uid 10001 --gid 10001 --home-dir /tmp --no-create-home --shell /usr/sbin/nologin octomy

WORKDIR /app
COPY target/octomy-batch.jar /app/octomy-batch.jar

USER 10001:10001
ENTRYPOINT ["java","-jar","/app/octomy-batch.jar"]
