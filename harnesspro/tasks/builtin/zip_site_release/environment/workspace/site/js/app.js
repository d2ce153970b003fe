document.querySelector("h1").addEventListener("click", () => alert("hi"));
//# sourceMappingURL=app.js.map
