// import.meta.env.BASE_URL and the other names Vite defines, for the type checker.
/// <reference types="vite/client" />
