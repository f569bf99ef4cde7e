# Chromium (Debian 'chromium'): renders latlab's SVG charts headless in the
# tests, which then check the screenshot is not blank. Only tests use it;
# without it they skip and say how to install it.
find_program(LATLAB_CHROMIUM NAMES chromium chromium-browser)
if(LATLAB_CHROMIUM)
  message(STATUS "latlab: chromium (SVG rendering in tests): found ${LATLAB_CHROMIUM}")
else()
  message(STATUS "latlab: chromium (SVG rendering in tests): not found (apt-get install -y chromium); SVG screenshot checks skip")
endif()
