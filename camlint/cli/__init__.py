"""The command line: click commands, configuration, discovery of documents, exit status."""
