-- Policy versions keep the teams their rules name, resolved to ids when saved.
ALTER TABLE "PolicyDocument" ADD COLUMN     "teamIds" TEXT;

-- Secret and MCP tool scopes named teams by name; they now hold team ids
-- ("*" stays "any team"). A name that matches no team is dropped.
UPDATE "Secret" AS s SET "allowedTeams" = (
    SELECT COALESCE(json_agg(x."ref" ORDER BY x."ref")::text, '[]') FROM (
      SELECT DISTINCT CASE WHEN j."value" = '*' THEN '*' ELSE t."id" END AS "ref"
      FROM json_array_elements_text(s."allowedTeams"::json) AS j("value") LEFT JOIN "Team" AS t ON t."name" = j."value"
      WHERE j."value" = '*' OR t."id" IS NOT NULL) AS x)
  WHERE s."allowedTeams" LIKE '[%' AND s."allowedTeams" <> '[]';

UPDATE "McpTool" AS m SET "allowedTeams" = (
    SELECT COALESCE(json_agg(x."ref" ORDER BY x."ref")::text, '[]') FROM (
      SELECT DISTINCT CASE WHEN j."value" = '*' THEN '*' ELSE t."id" END AS "ref"
      FROM json_array_elements_text(m."allowedTeams"::json) AS j("value") LEFT JOIN "Team" AS t ON t."name" = j."value"
      WHERE j."value" = '*' OR t."id" IS NOT NULL) AS x)
  WHERE m."allowedTeams" LIKE '[%' AND m."allowedTeams" <> '[]';
