"""What the tests share: loopback servers, hostile inputs, fakes, fixtures."""
