-- Policy versions keep the teams their rules name, resolved to ids when saved.
ALTER TABLE "PolicyDocument" ADD COLUMN "teamIds" TEXT;

-- Secret and MCP tool scopes named teams by name; they now hold team ids
-- ("*" stays "any team"). A name that matches no team is dropped.
UPDATE "Secret" SET "allowedTeams" = COALESCE((
    SELECT json_group_array("ref") FROM (
      SELECT DISTINCT CASE WHEN j."value" = '*' THEN '*' ELSE t."id" END AS "ref"
      FROM json_each("Secret"."allowedTeams") AS j LEFT JOIN "Team" AS t ON t."name" = j."value"
      WHERE j."value" = '*' OR t."id" IS NOT NULL
      ORDER BY 1)
  ), '[]')
  WHERE json_valid("allowedTeams") AND json_type("allowedTeams") = 'array' AND "allowedTeams" <> '[]';

UPDATE "McpTool" SET "allowedTeams" = COALESCE((
    SELECT json_group_array("ref") FROM (
      SELECT DISTINCT CASE WHEN j."value" = '*' THEN '*' ELSE t."id" END AS "ref"
      FROM json_each("McpTool"."allowedTeams") AS j LEFT JOIN "Team" AS t ON t."name" = j."value"
      WHERE j."value" = '*' OR t."id" IS NOT NULL
      ORDER BY 1)
  ), '[]')
  WHERE json_valid("allowedTeams") AND json_type("allowedTeams") = 'array' AND "allowedTeams" <> '[]';
