def render(status):
    rows = "".join("<li>%s: %s</li>" % item for item in sorted(status.items()))
    return "<ul>%s</ul>\n" % rows
