-- Argo CD health check for BatchNode (argocd-cm: resource.customizations.health.batch.octomy.io_BatchNode).
-- Healthy while its agent reports Ready; Degraded when the agent says it is not ready or has gone
-- silent (Ready Unknown, written by the controller); Progressing until the agent first reports.
hs = {status = "Progressing", message = "waiting for the node's agent to report"}
if obj.status ~= nil and obj.status.conditions ~= nil then
  for _, c in ipairs(obj.status.conditions) do
    if c.type == "Ready" then
      if c.status == "True" then
        hs.status = "Healthy"
      else
        hs.status = "Degraded"
      end
      hs.message = c.message or c.reason or ("Ready " .. c.status)
    end
  end
end
return hs
