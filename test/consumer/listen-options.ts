// For type-checking the consumer test in this repo (msw 2); the consumer check writes its own.
export const listenOptions = { onUnhandledRequest: 'error' } as const
