// Loads the storefront widget from the service through the app proxy: /apps/preorder/* on the
// store is forwarded to <APP_URL>/storefront/*, so /apps/preorder/widget.js is the service's
// GET /storefront/widget.js (built from src/storefront/widget/ when the service starts; there is
// no build step to copy it here). Same origin as the store: no app URL in the theme.
(function () {
  var script = document.createElement("script");
  script.src = "/apps/preorder/widget.js";
  script.defer = true;
  document.head.appendChild(script);
})();
