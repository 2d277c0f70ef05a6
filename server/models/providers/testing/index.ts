// Fake provider servers for tests (contract tests here, end-to-end tests
// later). Test code only.
export { FakeServer, type FakeBehaviour, type FakeReply, type FakeToolCall, type FakeUsage, type RecordedRequest } from "./server";
export { startFakeOpenAI, type FakeOpenAIOptions } from "./fake-openai";
export { startFakeAnthropic, type FakeAnthropicOptions } from "./fake-anthropic";
